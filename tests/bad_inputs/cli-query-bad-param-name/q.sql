SELECT :tp;
