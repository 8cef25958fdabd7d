"""A Flask (WSGI) app: `bin/apx --python .venv/py3.11/bin/python --interface wsgi --app-dir examples flask_app:app`."""
import os

from flask import Flask, Response, jsonify, redirect, request, send_file, stream_with_context

app = Flask(__name__)


@app.get("/")
def hello():
    return "Hello, world!"


@app.get("/json")
def json():
    return jsonify(message="Hello, world!", items=list(range(10)), query=request.args.get("q"))


@app.post("/echo")
def echo():
    return Response(request.get_data(), content_type=request.content_type or "application/octet-stream")


@app.get("/stream")
def stream():
    def parts():
        for i in range(5):
            yield f"part {i}\n"
    return Response(stream_with_context(parts()), content_type="text/plain")


@app.get("/file")
def file():
    return send_file(os.path.abspath(__file__), mimetype="text/plain")


@app.get("/go")
def go():
    return redirect("/", code=302)
