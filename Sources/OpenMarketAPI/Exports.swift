// The contract's types (wire models, ProductRules, ProductKey) are part of the client's
// interface: whoever imports the client has them.
@_exported import OpenMarketContract
