; Python facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- definitions
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; ---- imports
(import_statement
  name: [
    (dotted_name) @import.target
    (aliased_import name: (dotted_name) @import.target)
  ]) @import

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.target
  name: [
    (dotted_name) @import.name
    (aliased_import name: (dotted_name) @import.name)
  ]?) @import

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.target
  (wildcard_import)) @import

; ---- inheritance
(class_definition
  name: (identifier) @supertype.child
  superclasses: (argument_list
    [
      (identifier) @supertype.extends
      (attribute attribute: (identifier) @supertype.extends)
      (subscript value: [(identifier) (attribute)] @supertype.extends)
    ]))

; ---- references
(call
  function: [
      (identifier) @name
      (attribute
        attribute: (identifier) @name)
  ]) @reference.call

(decorator [(identifier) @name (attribute attribute: (identifier) @name)] @reference.call)

(type (identifier) @name) @reference.type

(attribute
  object: (identifier) @name) @reference.other

; ---- strings (dotted paths, file paths, placeholders)
(string (string_content) @string)

; ---- call sites: calls with string or name arguments (`registry.register("csv", X)`,
; `path("orders/", views.list_orders)`, `order_placed.send(sender=Order)`)
(call
  function: (_) @call.function
  arguments: (argument_list) @call.args) @call

; ---- decorations: the name and arguments, then what is decorated
(decorator [(identifier) (attribute)] @decoration.function) @decoration
(decorator
  (call
    function: (_) @decoration.function
    arguments: (argument_list) @decoration.args)) @decoration

(decorated_definition
  (decorator) @decoration
  definition: (function_definition
    name: (identifier) @decoration.target
    parameters: (parameters) @decoration.params))
(decorated_definition
  (decorator) @decoration
  definition: (class_definition name: (identifier) @decoration.target))
