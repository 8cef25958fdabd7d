"""django-json for bench/run: an async Django view answering JSON, served through
django.core.asgi.get_asgi_application() (settings: django_settings.py; this module is also the URLconf)."""
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "django_settings")

from django.core.asgi import get_asgi_application  # noqa: E402 (the settings module must be named first)
from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402


async def json_view(request):
    # async: a sync view would run on asgiref's thread pool under both servers
    return JsonResponse({"message": "Hello, world!", "items": [1, 2, 3]})


urlpatterns = [path("json", json_view)]

application = get_asgi_application()
