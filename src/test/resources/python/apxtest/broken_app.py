"""An app that cannot be imported (WorkersIT: a worker that cannot start stops the supervisor)."""
import module_that_does_not_exist_apx  # noqa: F401

app = None
