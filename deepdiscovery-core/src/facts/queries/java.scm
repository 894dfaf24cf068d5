; Java facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- package
(package_declaration [(scoped_identifier) (identifier)] @package)

; ---- definitions (qualified names come from the package and the nesting)
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(enum_constant name: (identifier) @name) @definition.constant

; ---- imports: `import a.b.C;`, `import static a.b.C.m;` (target `a.b.C.m`) and
; `import a.b.*;` (target `a.b`, name `*`: the resolver reads it as a wildcard)
(import_declaration [(scoped_identifier) (identifier)] @import.target .) @import
(import_declaration
  [(scoped_identifier) (identifier)] @import.target
  .
  (asterisk) @import.name) @import

; ---- inheritance
(class_declaration
  name: (identifier) @supertype.child
  superclass: (superclass (_) @supertype.extends))

(class_declaration
  name: (identifier) @supertype.child
  interfaces: (super_interfaces (type_list (_) @supertype.implements)))

(enum_declaration
  name: (identifier) @supertype.child
  interfaces: (super_interfaces (type_list (_) @supertype.implements)))

(record_declaration
  name: (identifier) @supertype.child
  interfaces: (super_interfaces (type_list (_) @supertype.implements)))

(interface_declaration
  name: (identifier) @supertype.child
  (extends_interfaces (type_list (_) @supertype.extends)))

; ---- references
(method_invocation name: (identifier) @name) @reference.call

(method_reference (identifier) @name .) @reference.call

; `new Ledger(…)` and every type named in a declaration, cast, generic argument…
(type_identifier) @name @reference.type

(marker_annotation name: (_) @name) @reference.type
(annotation name: (_) @name) @reference.type

; `Tax.apply(…)`, `Limits.MAX`: a class used through its static members.
(method_invocation
  object: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.other
(field_access
  object: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.other

; ---- strings (dotted paths, file paths, placeholders)
(string_literal (string_fragment) @string)
(string_literal (multiline_string_fragment) @string)

; ---- call sites: calls with string or name arguments
(method_invocation
  object: (_) @call.receiver
  name: (identifier) @call.name
  arguments: (argument_list) @call.args) @call
(method_invocation
  !object
  name: (identifier) @call.name
  arguments: (argument_list) @call.args) @call

; ---- decorations (annotations): the name and arguments, then what is annotated — a
; type (with its constructors' parameters), a method or constructor (with its
; parameters), a field or a parameter (its declared type)
(marker_annotation name: (_) @decoration.function) @decoration
(annotation
  name: (_) @decoration.function
  arguments: (annotation_argument_list) @decoration.args) @decoration

(class_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target)
(interface_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target)
(enum_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target)
(record_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target)
(class_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  body: (class_body
    (constructor_declaration parameters: (formal_parameters) @decoration.params)))
(method_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target
  parameters: (formal_parameters) @decoration.params)
(constructor_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  name: (identifier) @decoration.target
  parameters: (formal_parameters) @decoration.params)
(field_declaration
  (modifiers [(marker_annotation) (annotation)] @decoration)
  type: (_) @decoration.target)
(formal_parameter
  (modifiers [(marker_annotation) (annotation)] @decoration)
  type: (_) @decoration.target)
