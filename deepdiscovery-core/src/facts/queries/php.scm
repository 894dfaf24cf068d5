; php facts: written in the query task for php
