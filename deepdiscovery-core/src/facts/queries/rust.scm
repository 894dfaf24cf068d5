; rust facts: written in the query task for rust
