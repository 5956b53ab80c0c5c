/**
 * The service's layers are composed in tiers (src/app.ts): each service is provided once, from one shared
 * context, and none brings its own `dependencies` there. With each service providing its own, the whole was
 * a graph of about 500 layers whose machinery took a third of a restart's CPU (docs/decisions/production.md,
 * "The layers, in tiers"). The compiler checks that every tier has what it needs; this checks the shape: no
 * service's `Default` (the layer that provides its dependencies) is in AppLive's graph.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { AppLive } from "../../src/app.js"
import { ROOT, SRC, sourceFiles } from "./sourceScan.js"

/** Every layer node reachable from `root` (a suspended layer counted with what it evaluates to). */
const layerNodes = (root: unknown): Set<unknown> => {
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || !("_op_layer" in node) || seen.has(node)) return
    seen.add(node)
    const layer = node as Record<string, unknown>
    if (layer._op_layer === "Suspend") visit((layer.evaluate as () => unknown)())
    if (Array.isArray(layer.layers)) layer.layers.forEach(visit)
    for (const key of ["first", "second", "self", "layer"]) visit(layer[key])
  }
  visit(root)
  return seen
}

/** The services that declare `dependencies`: their name and their `Default`, which provides them. */
const servicesWithDependencies = async () => {
  const files = sourceFiles(SRC).filter((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8")
    return text.includes("Effect.Service<") && text.includes("dependencies:")
  })
  const found: Array<{ readonly name: string; readonly withDependencies: unknown }> = []
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(ROOT, file)).href)) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === "function" && "DefaultWithoutDependencies" in value && "Default" in value) found.push({ name, withDependencies: value.Default })
    }
  }
  return found
}

describe("the service's layers", () => {
  it("provide each service in its tier: no service brings its own dependencies into AppLive", async () => {
    const services = await servicesWithDependencies()
    // the scan must have found the services (a rename of Effect.Service would make this pass vacuously)
    expect(services.length).toBeGreaterThan(30)
    const nodes = layerNodes(AppLive)
    expect(services.filter((service) => nodes.has(service.withDependencies)).map((service) => service.name)).toEqual([])
    // about 290 layers today (500 when each service brought its own dependencies)
    expect(nodes.size).toBeLessThan(350)
  })
})
