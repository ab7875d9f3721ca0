; JSX references, added to the TypeScript query for TSX.
(jsx_opening_element name: (identifier) @ref)
(jsx_self_closing_element name: (identifier) @ref)
