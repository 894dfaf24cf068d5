; TSX facts: everything of typescript.scm (prepended by grammar.rs) plus JSX,
; which only the TSX grammar has.

; JSX: `<Button …>` renders (calls) the component `Button`.
[
  (jsx_opening_element
    name: [(identifier) @name (member_expression property: (property_identifier) @name)])
  (jsx_self_closing_element
    name: [(identifier) @name (member_expression property: (property_identifier) @name)])
] @reference.call
