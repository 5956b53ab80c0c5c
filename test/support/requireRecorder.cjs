/**
 * Preloaded (`node --require`) into a service process by test/e2e/productionBuild.test.ts: appends each package
 * the process requires, the first time, to the file REQUIRED_PACKAGES_FILE names, so a test can tell what a
 * start loaded and what only a later request did.
 */
const fs = require("node:fs")
const Module = require("node:module")

const file = process.env.REQUIRED_PACKAGES_FILE
const seen = new Set()
const load = Module._load
Module._load = function (request, ...rest) {
  if (file !== undefined && !/^(\.|\/|node:)/.test(request) && !seen.has(request)) {
    seen.add(request)
    fs.appendFileSync(file, `${request}\n`)
  }
  return load.call(this, request, ...rest)
}
