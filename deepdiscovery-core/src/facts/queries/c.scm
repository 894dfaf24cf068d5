; c facts: written in the query task for c
