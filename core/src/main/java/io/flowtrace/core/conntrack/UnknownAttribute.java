package io.flowtrace.core.conntrack;

/**
 * An attribute the parser has no layout for, kept rather than dropped so that sizing still counts
 * it and a newer kernel's additions show up. {@code path} names the enclosing nests, e.g. "4/1".
 */
public record UnknownAttribute(String path, int type, int payloadLength, int offset) {}
