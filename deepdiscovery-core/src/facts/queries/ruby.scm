; ruby facts: written in the query task for ruby
