truncate -s 8192 "$DB"
