; go facts: written in the query task for go
