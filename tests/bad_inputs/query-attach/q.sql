ATTACH 'other.db' AS other;
