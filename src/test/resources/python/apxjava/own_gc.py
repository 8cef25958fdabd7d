"""An app that sets its own collector threshold at import and reports it (PythonAppTest)."""
import gc

at_import = gc.get_threshold()
gc.set_threshold(1234)


async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": f"{at_import} {gc.get_threshold()}".encode()})
