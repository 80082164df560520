ln -s "$DB" link.db
