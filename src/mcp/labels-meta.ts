/**
 * Where a Wardrik server (or any other) puts a result's labels: `_meta['wardrik/labels']`. Its own module,
 * with the other `_meta` keys below, as the server writes them and the hub reads them, and the server should
 * not load the hub's MCP clients.
 */
export const LABELS_META = 'wardrik/labels';

/**
 * The draft MCP extension for trust annotations (the Tool Annotations Interest Group's
 * `io.modelcontextprotocol/trust-annotations`, from SEP-1913): under this key in a result's `_meta` (or a
 * content block's), `sensitive: true` marks data that is not for everyone and `untrusted: true` data from
 * outside. An absent key or `false` makes no claim; a block's claim only adds to the result's.
 */
export const TRUST_ANNOTATIONS_META = 'io.modelcontextprotocol/trust-annotations';

/** Where a Wardrik server puts a 2026-07-28 result's conversation token, and a client sends it back. */
export const CONVERSATION_META = 'wardrik/conversation';

/** The `data.reason` of a Wardrik server's -32602 for a conversation token it cannot open: a client may drop it. */
export const UNKNOWN_CONVERSATION = 'unknown_conversation';
