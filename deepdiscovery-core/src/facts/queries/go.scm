; Go facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.
; Go interfaces are satisfied implicitly, so no `@supertype.implements` here:
; struct and interface embedding are the only declared supertypes.

; ---- package
(package_clause (package_identifier) @package)

; ---- definitions
(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type) (array_type)
    (slice_type) (map_type) (channel_type) (function_type)
  ]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(method_elem
  name: (field_identifier) @name) @definition.method

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.constant))

; ---- imports (one per spec, grouped or not; the alias is not a name it imports)
(import_spec
  path: [
    (interpreted_string_literal (interpreted_string_literal_content) @import.target)
    (raw_string_literal (raw_string_literal_content) @import.target)
  ]) @import

; ---- embedding
(type_spec
  name: (type_identifier) @supertype.child
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: [(type_identifier) (qualified_type) (generic_type)] @supertype.extends))))

(type_spec
  name: (type_identifier) @supertype.child
  type: (interface_type
    (type_elem [(type_identifier) (qualified_type) (generic_type)] @supertype.extends)))

; ---- references
(call_expression
  function: [
    (identifier) @name
    (selector_expression field: (field_identifier) @name)
  ]) @reference.call

(type_identifier) @name @reference.type

; ---- strings (dotted paths, file paths, placeholders); import paths excluded
(argument_list
  [
    (interpreted_string_literal (interpreted_string_literal_content) @string)
    (raw_string_literal (raw_string_literal_content) @string)
  ])
(expression_list
  [
    (interpreted_string_literal (interpreted_string_literal_content) @string)
    (raw_string_literal (raw_string_literal_content) @string)
  ])
(literal_element
  [
    (interpreted_string_literal (interpreted_string_literal_content) @string)
    (raw_string_literal (raw_string_literal_content) @string)
  ])

; ---- call sites: calls with string or name arguments (`http.HandleFunc("/orders",
; handlers.ListOrders)`, `bus.Publish("orders.created", evt)`)
(call_expression
  function: (_) @call.function
  arguments: (argument_list) @call.args) @call
