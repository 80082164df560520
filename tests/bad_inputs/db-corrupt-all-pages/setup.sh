# Garbage over every page but the first (which names the tables): any read of a table fails.
pages=$(( $(stat -c %s "$DB") / 4096 ))
dd if=/dev/urandom of="$DB" bs=4096 seek=1 count=$((pages - 1)) conv=notrunc 2>/dev/null
