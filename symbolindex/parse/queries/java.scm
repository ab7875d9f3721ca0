; Symbols and references for java (see the capture roles in ../languages.go).
(class_declaration name: (identifier) @name body: (class_body) @body) @def.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @def.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @def.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @def.enum
(record_declaration name: (identifier) @name body: (class_body) @body) @def.class
(method_declaration name: (identifier) @name body: (block)? @body) @def.method
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @def.method

; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(method_invocation name: (identifier) @ref)
(method_invocation object: (identifier) @ref)
(field_access field: (identifier) @ref)
(marker_annotation name: (identifier) @ref)
(annotation name: (identifier) @ref)
