; kotlin facts: written in the query task for kotlin
