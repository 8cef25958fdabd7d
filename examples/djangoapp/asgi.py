"""The Django project's ASGI app: `bin/apx --python .venv/py3.11/bin/python --app-dir examples djangoapp.asgi:application`."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "djangoapp.settings")
application = get_asgi_application()
