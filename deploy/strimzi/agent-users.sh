#!/usr/bin/env bash
# One Strimzi KafkaUser per node for the capture agents, flowtrace-agent-<node>, with the agents' ACLs
# of users.yaml (write the two input topics, idempotent writes; no read, no group, no transactions):
# a stolen credential then speaks for one node. Prints the resources; apply them with
#   deploy/strimzi/agent-users.sh | kubectl apply -f -              # every node of the cluster
#   deploy/strimzi/agent-users.sh node-a node-b | kubectl apply -f - # the nodes named
# The User Operator writes each password to a Secret of the user's name (key "password").
# docs/operations.md ("Kafka users per node") says how a node's agents take their own user, and what
# the per-node user does not yet prevent (a record's vantage is not checked against its sender).
set -euo pipefail

NAMESPACE="${FLOWTRACE_NAMESPACE:-flowtrace}"
CLUSTER="${FLOWTRACE_KAFKA_CLUSTER:-flowtrace}"

if [ "$#" -eq 0 ]; then
    mapfile -t nodes < <(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
else
    nodes=("$@")
fi
if [ "${#nodes[@]}" -eq 0 ]; then
    echo "agent-users.sh: no nodes (kubectl get nodes listed none; or name them: agent-users.sh NODE...)" >&2
    exit 2
fi

for node in "${nodes[@]}"; do
    # a KafkaUser's name is a DNS subdomain (lower case, digits, '-', '.'), as node names are
    if ! [[ "$node" =~ ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$ ]] || [ "${#node}" -gt 237 ]; then
        echo "agent-users.sh: '$node' cannot be part of a KafkaUser name (lower-case DNS name expected)" >&2
        exit 2
    fi
done
first=1
for node in "${nodes[@]}"; do
    [ "$first" -eq 1 ] || echo "---"
    first=0
    cat <<YAML
apiVersion: kafka.strimzi.io/v1
kind: KafkaUser
metadata:
  name: flowtrace-agent-${node}
  namespace: ${NAMESPACE}
  labels:
    strimzi.io/cluster: ${CLUSTER}
    app.kubernetes.io/name: flowtrace-agent
spec:
  authentication:
    type: scram-sha-512
  authorization:
    type: simple
    acls:
      - resource: {type: topic, name: flowtrace.packets, patternType: literal}
        operations: [Describe, Write]
      - resource: {type: topic, name: flowtrace.conntrack, patternType: literal}
        operations: [Describe, Write]
      - resource: {type: cluster}
        operations: [IdempotentWrite]
YAML
done
