; C# facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- namespace: a file-scoped `namespace A.B;` or the first top-level block; a
; namespace nested in another is a definition, so its types are qualified through it.
(file_scoped_namespace_declaration name: (_) @package)
(compilation_unit (namespace_declaration name: (_) @package))
(declaration_list (namespace_declaration name: (_) @name) @definition.namespace)

; ---- definitions (qualified names come from the namespace and the nesting)
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.constant

; ---- imports: `using A.B;`, `using static A.B.C;`, `global using A.B;` and the alias
; `using X = A.B.C;` (name `X`). Whether the target is a namespace or a type is the
; resolver's business.
(using_directive
  !name
  [(qualified_name) (identifier)] @import.target) @import
(using_directive
  name: (identifier) @import.name
  .
  [(qualified_name) (identifier) (generic_name)] @import.target) @import

; ---- inheritance: C# does not say which base is a class and which an interface; the
; naming convention does (`IDisposable`, `Acme.IStore<T>`). An interface's bases are
; interfaces it extends.
(class_declaration
  name: (identifier) @supertype.child
  (base_list
    [
      (identifier) (generic_name) (qualified_name)
      (primary_constructor_base_type type: (_))
    ] @supertype.implements)
  (#match? @supertype.implements "^([A-Za-z0-9_]+\\.)*I[A-Z][A-Za-z0-9_]*(<|$)"))
(class_declaration
  name: (identifier) @supertype.child
  (base_list
    [
      (identifier) (generic_name) (qualified_name)
      (primary_constructor_base_type type: (_))
    ] @supertype.extends)
  (#not-match? @supertype.extends "^([A-Za-z0-9_]+\\.)*I[A-Z][A-Za-z0-9_]*(<|$)"))
(record_declaration
  name: (identifier) @supertype.child
  (base_list
    [
      (identifier) (generic_name) (qualified_name)
      (primary_constructor_base_type type: (_))
    ] @supertype.implements)
  (#match? @supertype.implements "^([A-Za-z0-9_]+\\.)*I[A-Z][A-Za-z0-9_]*(<|$)"))
(record_declaration
  name: (identifier) @supertype.child
  (base_list
    [
      (identifier) (generic_name) (qualified_name)
      (primary_constructor_base_type type: (_))
    ] @supertype.extends)
  (#not-match? @supertype.extends "^([A-Za-z0-9_]+\\.)*I[A-Z][A-Za-z0-9_]*(<|$)"))
(struct_declaration
  name: (identifier) @supertype.child
  (base_list [(identifier) (generic_name) (qualified_name)] @supertype.implements))
(interface_declaration
  name: (identifier) @supertype.child
  (base_list [(identifier) (generic_name) (qualified_name)] @supertype.extends))

; ---- references
(invocation_expression
  function: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (member_access_expression
      name: [(identifier) @name (generic_name . (identifier) @name)])
  ]) @reference.call

; `new Order(…)`, and every type named in a declaration, cast, base list, generic
; argument: C# has no type-identifier node, so these are the positions of types.
(_ type: (identifier) @name) @reference.type
(_ type: (generic_name . (identifier) @name)) @reference.type
(_ type: (qualified_name name: (identifier) @name)) @reference.type
(_ returns: [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
(type_argument_list (identifier) @name) @reference.type
(type_argument_list (generic_name . (identifier) @name)) @reference.type
(base_list
  [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])
  ]) @reference.type
(attribute name: (_) @name) @reference.type

; `Pricing.Compute(…)`, `Limits.Max`: a class used through its static members.
(member_access_expression
  expression: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.other

; ---- strings (dotted paths, file paths, placeholders)
(string_literal (string_literal_content) @string)
(verbatim_string_literal) @string

; ---- call sites: calls with string or name arguments (generic type arguments count:
; `services.AddScoped<IGateway, StripeGateway>()`)
(invocation_expression
  function: (_) @call.function
  arguments: (argument_list) @call.args) @call

; ---- decorations (attributes): the name and arguments, then what is attributed — a
; type (with its constructors' parameters), a method or constructor (with its
; parameters), a property, field or parameter (its declared type)
(attribute
  name: (_) @decoration.function
  (attribute_argument_list)? @decoration.args) @decoration

(class_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target)
(interface_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target)
(struct_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target)
(record_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target)
(class_declaration
  (attribute_list (attribute) @decoration)
  body: (declaration_list
    (constructor_declaration parameters: (parameter_list) @decoration.params)))
(method_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target
  parameters: (parameter_list) @decoration.params)
(constructor_declaration
  (attribute_list (attribute) @decoration)
  name: (identifier) @decoration.target
  parameters: (parameter_list) @decoration.params)
(property_declaration
  (attribute_list (attribute) @decoration)
  type: (_) @decoration.target)
(field_declaration
  (attribute_list (attribute) @decoration)
  (variable_declaration type: (_) @decoration.target))
(parameter
  (attribute_list (attribute) @decoration)
  type: (_) @decoration.target)
