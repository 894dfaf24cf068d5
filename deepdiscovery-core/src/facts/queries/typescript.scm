; typescript facts: written in the query task for typescript
