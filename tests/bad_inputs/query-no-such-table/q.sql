SELECT * FROM nope;
