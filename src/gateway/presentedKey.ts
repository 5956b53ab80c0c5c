/** The API key a request presents: x-api-key, or a Bearer token (what MCP clients send). */
const header = (headers: Readonly<Record<string, string | undefined>>, name: string) => {
  const value = headers[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

export const presentedKey = (headers: Readonly<Record<string, string | undefined>>) =>
  header(headers, "x-api-key") ?? header(headers, "authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1]

export const presentedTenant = (headers: Readonly<Record<string, string | undefined>>) => header(headers, "x-tenant-id")
