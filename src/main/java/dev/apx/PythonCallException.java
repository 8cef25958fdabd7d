package dev.apx;

/**
 * A Python function called from Java raised: its exception's type, message and traceback, as
 * Python would print them. A {@link PythonFuture} fails with it (wrapped in
 * {@code ExecutionException} by {@code get}, in {@code CompletionException} by {@code join}).
 */
public final class PythonCallException extends RuntimeException {
    /** The exception's type name. */
    private final String pythonType;
    /** {@code str(exception)} */
    private final String pythonMessage;
    /** The traceback text. */
    private final String pythonTraceback;

    PythonCallException(String pythonType, String pythonMessage, String pythonTraceback) {
        super(pythonMessage.isEmpty() ? pythonType : pythonType + ": " + pythonMessage);
        this.pythonType = pythonType;
        this.pythonMessage = pythonMessage;
        this.pythonTraceback = pythonTraceback;
    }

    /**
     * The exception's type.
     *
     * @return {@code ValueError} for a builtin exception, {@code package.module.Name} for any other
     */
    public String pythonType() {
        return pythonType;
    }

    /**
     * The exception's message.
     *
     * @return {@code str(exception)}
     */
    public String pythonMessage() {
        return pythonMessage;
    }

    /**
     * The traceback, as Python prints it.
     *
     * @return the text of {@code traceback.format_exception}, ending with the type and message
     */
    public String pythonTraceback() {
        return pythonTraceback;
    }
}
