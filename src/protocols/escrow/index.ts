// The escrow program's client module: instruction builders, PDA, state, errors and events.
export * from "./errors.js"
export * from "./events.js"
export * from "./instructions.js"
export * from "./layout.js"
export * from "./pda.js"
export * from "./state.js"
