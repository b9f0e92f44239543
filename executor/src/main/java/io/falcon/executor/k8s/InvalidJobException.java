package io.falcon.executor.k8s;

/** The job cannot be rendered or is refused by policy; the message says which field and why. */
public class InvalidJobException extends RuntimeException {
    public InvalidJobException(String message) {
        super(message);
    }
}
