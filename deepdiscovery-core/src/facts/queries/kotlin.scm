; Kotlin facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- package
(package_header (qualified_identifier) @package)

; ---- definitions (qualified names come from the package and the nesting)
(class_declaration "class" name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @definition.interface
(object_declaration name: (identifier) @name) @definition.object
(companion_object name: (identifier) @name) @definition.object
(type_alias type: (identifier) @name) @definition.type

(source_file (function_declaration name: (identifier) @name) @definition.function)
(class_body (function_declaration name: (identifier) @name) @definition.method)
(enum_class_body (function_declaration name: (identifier) @name) @definition.method)

(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.constant)
(class_body
  (property_declaration (variable_declaration (identifier) @name)) @definition.field)
; `class Parcel(val weightKg: Int)`: a constructor parameter that is a property.
(class_parameter ["val" "var"] (identifier) @name) @definition.field
(enum_entry . (identifier) @name) @definition.constant

; ---- imports: `import a.b.C`, `import a.b.C as D` (name `D`),
; `import a.b.*` (target `a.b`, name `*`: the resolver reads it as a wildcard)
(import
  (qualified_identifier) @import.target
  ["*" (identifier)]? @import.name) @import

; ---- inheritance: `: Base()` (a constructor call) extends a class; a bare type is an
; interface (or a delegation `by x`); an interface's supertypes are interfaces it extends.
(class_declaration "class"
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier (constructor_invocation (user_type) @supertype.extends))))
(class_declaration "class"
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier
      [
        (user_type) @supertype.implements
        (explicit_delegation (user_type) @supertype.implements)
      ])))
(class_declaration "interface"
  name: (identifier) @supertype.child
  (delegation_specifiers (delegation_specifier (user_type) @supertype.extends)))
(object_declaration
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier (constructor_invocation (user_type) @supertype.extends))))
(object_declaration
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier
      [
        (user_type) @supertype.implements
        (explicit_delegation (user_type) @supertype.implements)
      ])))
(companion_object
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier (constructor_invocation (user_type) @supertype.extends))))
(companion_object
  name: (identifier) @supertype.child
  (delegation_specifiers
    (delegation_specifier
      [
        (user_type) @supertype.implements
        (explicit_delegation (user_type) @supertype.implements)
      ])))

; ---- references
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call
(callable_reference (identifier) @name .) @reference.call

; Types in declarations, generic arguments, annotations, supertypes.
(user_type (identifier) @name) @reference.type

; `Planner.plan(…)`, `Limits.MAX`: an object or class used through its members.
(navigation_expression
  . (identifier) @name
  (#match? @name "^[A-Z]")) @reference.other

; ---- strings (dotted paths, file paths, placeholders)
(string_literal (string_content) @string)
(multiline_string_literal (string_content) @string)

; ---- call sites: calls with string or name arguments
(call_expression
  . (_) @call.function
  (value_arguments) @call.args) @call

; ---- decorations (annotations): the name and arguments, then what is annotated — a
; class (with its primary constructor's parameters), a function, a property or a
; constructor parameter (its declared type)
(annotation (user_type) @decoration.function) @decoration
(annotation
  (constructor_invocation
    (user_type) @decoration.function
    (value_arguments) @decoration.args)) @decoration

(class_declaration
  (modifiers (annotation) @decoration)
  name: (identifier) @decoration.target)
(class_declaration
  (modifiers (annotation) @decoration)
  (primary_constructor (class_parameters) @decoration.params))
; `class A @Inject constructor(b: B)`
(class_declaration
  name: (identifier) @decoration.target
  (primary_constructor
    (modifiers (annotation) @decoration)
    (class_parameters) @decoration.params))
(function_declaration
  (modifiers (annotation) @decoration)
  name: (identifier) @decoration.target
  (function_value_parameters) @decoration.params)
(property_declaration
  (modifiers (annotation) @decoration)
  (variable_declaration [(user_type) (nullable_type)] @decoration.target))
(class_parameter
  (modifiers (annotation) @decoration)
  [(user_type) (nullable_type)] @decoration.target)
