"""Python side of apx's tests: small functions the Java tests call."""
