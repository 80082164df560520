SELECT * FROM runs WHERE tp = :tp;
