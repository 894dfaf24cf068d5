; cpp facts: written in the query task for cpp
