package io.flowtrace.jobs.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Validation against the schemas committed in deploy/schemas (deploy/schemas/README.md says where each
 * comes from), with networknt's json-schema-validator. A CRD's openAPIV3Schema is validated the way an
 * API server with strict field validation (kubectl's default since Kubernetes 1.27) treats it: a field
 * the schema does not declare is an error, unless the object says x-kubernetes-preserve-unknown-fields
 * or gives additionalProperties itself. CEL rules (x-kubernetes-validations) are not evaluated.
 */
final class SchemaValidation {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemaValidation() {}

    static JsonNode toJson(Object yamlTree) {
        return JSON.valueToTree(yamlTree);
    }

    /** The problems of {@code document} against a JSON schema file (draft 7 unless it says otherwise). */
    static List<String> validateJsonSchema(Path schemaFile, JsonNode document) {
        JsonNode schemaNode;
        try {
            schemaNode = JSON.readTree(Files.readString(schemaFile));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The schema's relative $id ("compose_spec.json") resolves against where it was read from.
        return messages(SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7)
                .getSchema(SchemaLocation.of(schemaFile.toUri().toString()), schemaNode)
                .validate(document));
    }

    /**
     * Kubernetes' own kinds, from the definitions of its OpenAPI document (deploy/schemas/kubernetes-*),
     * made strict as for CRDs; int-or-string and quantity fields take a number or a string, as the API
     * server's decoder does (the OpenAPI document declares them strings).
     */
    static final class KubernetesSchema {
        private final ObjectNode root;
        private final Map<String, String> definitionByGvk = new java.util.HashMap<>();
        private final Map<String, Schema> schemas = new java.util.HashMap<>();

        KubernetesSchema(Path definitionsFile) {
            try {
                root = (ObjectNode) JSON.readTree(Files.readString(definitionsFile));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ObjectNode definitions = (ObjectNode) root.get("definitions");
            for (Iterator<Map.Entry<String, JsonNode>> it = definitions.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> d = it.next();
                for (JsonNode gvk : d.getValue().path("x-kubernetes-group-version-kind")) {
                    String group = gvk.path("group").asText();
                    String apiVersion = group.isEmpty()
                            ? gvk.path("version").asText()
                            : group + "/" + gvk.path("version").asText();
                    definitionByGvk.put(apiVersion + " " + gvk.path("kind").asText(), d.getKey());
                }
            }
            for (String numberOrString : List.of(
                    "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                    "io.k8s.apimachinery.pkg.api.resource.Quantity")) {
                ObjectNode either = JSON.createObjectNode();
                either.putArray("anyOf")
                        .add(JSON.createObjectNode().put("type", "string"))
                        .add(JSON.createObjectNode().put("type", "number"));
                definitions.set(numberOrString, either);
            }
            strict(root);
        }

        /** The definition for an object's apiVersion and kind, or null when the file has none. */
        String definition(String apiVersion, String kind) {
            return definitionByGvk.get(apiVersion + " " + kind);
        }

        List<String> validate(JsonNode object) {
            String name = definition(
                    object.path("apiVersion").asText(), object.path("kind").asText());
            Schema schema = schemas.computeIfAbsent(name, n -> {
                ObjectNode withRef = root.deepCopy();
                withRef.put("$ref", "#/definitions/" + n);
                return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
                        .getSchema(withRef);
            });
            return messages(schema.validate(object));
        }
    }

    /** The versions a CRD file defines: name, whether it is served, and its strict schema. */
    static final class CrdVersion {
        private final String group;
        private final String name;
        private final boolean served;
        private final JsonNode schemaNode;
        private Schema schema;

        CrdVersion(String group, String name, boolean served, JsonNode schemaNode) {
            this.group = group;
            this.name = name;
            this.served = served;
            this.schemaNode = schemaNode;
        }

        String name() {
            return name;
        }

        boolean served() {
            return served;
        }

        String apiVersion() {
            return group + "/" + name;
        }

        synchronized List<String> validate(JsonNode document) {
            if (schema == null) {
                schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
                        .getSchema(schemaNode);
            }
            return messages(schema.validate(document));
        }
    }

    private static final Map<Path, List<CrdVersion>> CRDS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Parsed once per file: the Flink operator's CRD is half a megabyte. */
    static List<CrdVersion> crdVersions(Path crdFile) {
        return CRDS.computeIfAbsent(crdFile, SchemaValidation::readCrdVersions);
    }

    private static List<CrdVersion> readCrdVersions(Path crdFile) {
        Map<String, Object> crd = Yaml.documents(crdFile).get(0);
        String group = Yaml.string(crd, "spec.group");
        List<CrdVersion> out = new ArrayList<>();
        for (Object v : Yaml.list(Yaml.at(crd, "spec.versions"), "versions")) {
            Map<String, Object> version = Yaml.map(v, "version");
            ObjectNode schema = (ObjectNode) toJson(Yaml.at(version, "schema.openAPIV3Schema"));
            // Every object has these three, whether its CRD lists them or not.
            ObjectNode root = schema.with("properties");
            root.putIfAbsent("apiVersion", JSON.createObjectNode().put("type", "string"));
            root.putIfAbsent("kind", JSON.createObjectNode().put("type", "string"));
            root.putIfAbsent("metadata", JSON.createObjectNode().put("type", "object"));
            strict(schema);
            out.add(new CrdVersion(
                    group, version.get("name").toString(), Boolean.TRUE.equals(version.get("served")), schema));
        }
        return out;
    }

    /** additionalProperties: false on every object schema that lists its properties and keeps no unknown field. */
    private static void strict(JsonNode node) {
        if (node instanceof ObjectNode object) {
            boolean preserves =
                    object.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
            if (object.has("properties") && !object.has("additionalProperties") && !preserves) {
                object.put("additionalProperties", false);
            }
        }
        for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
            strict(it.next());
        }
    }

    private static List<String> messages(List<Error> errors) {
        return errors.stream()
                .map(e -> e.getInstanceLocation() + ": " + e.getMessage())
                .toList();
    }
}
