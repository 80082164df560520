SELECT * FROM runs WHERE tp = ?;
