; csharp facts: written in the query task for csharp
