; javascript facts: written in the query task for javascript
