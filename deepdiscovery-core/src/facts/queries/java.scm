; java facts: written in the query task for java
