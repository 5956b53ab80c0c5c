/**
 * DATA_DIR's default, one value for every program and for what reads it before the configuration is loaded
 * (the compile cache, the development credentials): a module with no imports, so reading it loads nothing.
 */
export const DEFAULT_DATA_DIR = ".data"
