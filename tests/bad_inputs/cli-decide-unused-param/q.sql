-- a decision's query with one parameter
SELECT :tp AS tp;
