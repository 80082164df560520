-- a decision's query whose comment names :bacth, which no statement reads
SELECT :tp AS tp; -- not :bacth
