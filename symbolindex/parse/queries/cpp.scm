; Symbols and references for cpp (see the capture roles in ../languages.go).
(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]
  body: (_) @body) @def.function
(function_definition
  declarator: (function_declarator declarator: (_) @name)
  !body) @def.proto
(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))
  ]) @def.proto
(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @def.proto
(class_specifier name: (_) @name body: (field_declaration_list) @body) @def.class
(struct_specifier name: (_) @name body: (field_declaration_list) @body) @def.struct
(union_specifier name: (_) @name body: (field_declaration_list) @body) @def.struct
(enum_specifier name: (_) @name body: (enumerator_list) @body) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(template_declaration [(function_definition) (class_specifier) (struct_specifier) (declaration) (alias_declaration)] @wrapped) @wrap
(preproc_def name: (identifier) @name value: (preproc_arg)) @def.const
(preproc_function_def name: (identifier) @name) @def.function

; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(call_expression function: (identifier) @ref)
(field_expression field: (field_identifier) @ref)
(qualified_identifier name: (identifier) @ref)
