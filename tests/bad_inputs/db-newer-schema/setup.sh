sqlite3 "$DB" "PRAGMA user_version = 999"
