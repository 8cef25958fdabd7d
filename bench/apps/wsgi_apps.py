"""WSGI apps for bench/run's WSGI rows: Flask hello and JSON, and a Django view (settings inline,
no database, no middleware). Served by apx --interface wsgi, Gunicorn -k gthread and Uvicorn
--interface wsgi alike."""
import django
from django.conf import settings
from flask import Flask, jsonify

flask = Flask(__name__)


@flask.get("/")
def hello():
    return "Hello, world!"


@flask.get("/json")
def json():
    return jsonify(message="Hello, world!", items=[1, 2, 3])


settings.configure(SECRET_KEY="bench-not-secret", DEBUG=False, ALLOWED_HOSTS=["*"], ROOT_URLCONF=__name__,
                   INSTALLED_APPS=[], MIDDLEWARE=[], DATABASES={}, USE_TZ=True)
django.setup()

from django.core.wsgi import get_wsgi_application  # noqa: E402 (after settings)
from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402


def django_view(request):
    return JsonResponse({"message": "Hello, world!", "items": [1, 2, 3]})


urlpatterns = [path("json", django_view)]
django_app = get_wsgi_application()
