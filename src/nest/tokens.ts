/**
 * The tokens `WardrikModule` provides besides the `Wardrik` class itself: inject them with
 * `@Inject(WARDRIK_MCP_SERVER)` and `@Inject(WARDRIK_INBOX)`. Each is `null` when its options are absent.
 */
export const WARDRIK_MODULE_OPTIONS = Symbol.for('wardrik:nest-options');
/** The `WardrikMcpServer` made from `mcpServer`. */
export const WARDRIK_MCP_SERVER = Symbol.for('wardrik:nest-mcp-server');
/** The `InboxWeb` the inbox route serves. */
export const WARDRIK_INBOX = Symbol.for('wardrik:nest-inbox');
