# the database a `touch xp.db` leaves: a file of no bytes
: > "$DB"
