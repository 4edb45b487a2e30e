/// `GET /openapi.yaml` and `GET /openapi.json`: the API's own OpenAPI description, compiled in (``OpenAPIDocument``).
extension Router {
    /// The two spellings of the description, each at its own path.
    enum OpenAPIFormat: Sendable, Equatable {
        /// `/openapi.yaml`, served as `application/yaml`: `openapi.yaml` byte for byte.
        case yaml
        /// `/openapi.json`, served as `application/json; charset=utf-8`: the same document converted to JSON.
        case json

        /// The format served at the one-segment path `/<fileName>`, or nil.
        init?(fileName: String) {
            switch fileName {
            case "openapi.yaml": self = .yaml
            case "openapi.json": self = .json
            default: return nil
            }
        }
    }

    /// The 200 response for `format`; the same value for every request (any query is ignored).
    static func openAPIDocument(_ format: OpenAPIFormat) -> HTTPResponse {
        switch format {
        case .yaml: openAPIYAMLResponse
        case .json: openAPIJSONResponse
        }
    }

    /// Built once: the documents are about 24 and 32 kB and never change while the server runs.
    private static let openAPIYAMLResponse = HTTPResponse(
        status: 200, headers: ["Content-Type": MediaType.yaml], body: Array(OpenAPIDocument.yaml.utf8))

    private static let openAPIJSONResponse = HTTPResponse(
        status: 200, headers: ["Content-Type": MediaType.json], body: Array(OpenAPIDocument.json.utf8))
}

extension MediaType {
    /// The OpenAPI description in YAML: `application/yaml` (RFC 9512; YAML is UTF-8 by definition).
    package static let yaml = "application/yaml"
}
