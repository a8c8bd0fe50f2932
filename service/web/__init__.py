"""The gateway's human pages: OpenAPI, Swagger UI, ReDoc, the reference, the playground."""
