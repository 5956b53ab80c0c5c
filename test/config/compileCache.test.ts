/**
 * Which folder may hold V8's compile cache (src/compileCache.ts): V8 runs the code it finds there, so only a real
 * folder that no one but the service's user can write. The built service's use of it: test/e2e/productionBuild.test.ts.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { enableCompileCache, serviceCodeCacheDirectory, unsafeCacheDirectory } from "../../src/compileCache.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "custody-compile-cache-"))
const uid = process.getuid?.()
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const folder = (name: string, mode: number) => {
  const dir = path.join(root, name)
  fs.mkdirSync(dir)
  fs.chmodSync(dir, mode)
  return dir
}

describe("a folder for the compile cache", () => {
  it("is used when only its owner, the service's user, can write it", () => {
    expect(unsafeCacheDirectory(fs.lstatSync(folder("own", 0o700)), uid)).toBeUndefined()
    expect(unsafeCacheDirectory(fs.lstatSync(folder("readable", 0o755)), uid)).toBeUndefined()
  })

  it("is refused when its group or anyone can write it, naming the mode", () => {
    expect(unsafeCacheDirectory(fs.lstatSync(folder("group", 0o770)), uid)).toBe("can be written by others than its owner (mode 770)")
    expect(unsafeCacheDirectory(fs.lstatSync(folder("world", 0o777)), uid)).toBe("can be written by others than its owner (mode 777)")
  })

  it("is refused when another user owns it", () => {
    const stat = fs.lstatSync(folder("theirs", 0o700))
    expect(unsafeCacheDirectory(stat, stat.uid + 1)).toBe(`belongs to user ${stat.uid}, not to the service's user (${stat.uid + 1})`)
  })

  it("is refused when it is a link or a file (whatever the link points to)", () => {
    const link = path.join(root, "link")
    fs.symlinkSync(folder("target", 0o700), link)
    expect(unsafeCacheDirectory(fs.lstatSync(link), uid)).toBe("is not a directory")
    const file = path.join(root, "file")
    fs.writeFileSync(file, "", { mode: 0o600 })
    expect(unsafeCacheDirectory(fs.lstatSync(file), uid)).toBe("is not a directory")
  })
})

describe("Node's own compile cache settings", () => {
  it("come first: with NODE_DISABLE_COMPILE_CACHE or NODE_COMPILE_CACHE set the service creates nothing in DATA_DIR", () => {
    for (const setting of [{ NODE_DISABLE_COMPILE_CACHE: "1" }, { NODE_COMPILE_CACHE: path.join(root, "elsewhere") }]) {
      const dataDir = path.join(root, `data-${Object.keys(setting)[0]}`)
      const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, ...setting }
      expect(enableCompileCache(env)).toEqual({ _tag: "NodeSettings" })
      expect(fs.existsSync(dataDir)).toBe(false)
      expect(env).toEqual({ DATA_DIR: dataDir, ...setting })
    }
  })
})

describe("the folder of the built service's own code cache (src/serviceCodeCache.ts)", () => {
  it("is the compile cache's, or the one the operator gave Node.js; none where the compile cache is off, refused or unsupported", () => {
    expect(serviceCodeCacheDirectory({ _tag: "On", directory: "/data/compile-cache" }, {})).toBe("/data/compile-cache")
    expect(serviceCodeCacheDirectory({ _tag: "NodeSettings" }, { NODE_COMPILE_CACHE: "/var/cache/node" })).toBe("/var/cache/node")
    expect(serviceCodeCacheDirectory({ _tag: "NodeSettings" }, { NODE_COMPILE_CACHE: "/var/cache/node", NODE_DISABLE_COMPILE_CACHE: "1" })).toBeUndefined()
    expect(serviceCodeCacheDirectory({ _tag: "NodeSettings" }, { NODE_DISABLE_COMPILE_CACHE: "1" })).toBeUndefined()
    expect(serviceCodeCacheDirectory({ _tag: "Refused", warning: "others can write it" }, {})).toBeUndefined()
    expect(serviceCodeCacheDirectory({ _tag: "Unsupported" }, {})).toBeUndefined()
  })
})
