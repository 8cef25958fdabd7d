"""The Django project's WSGI app:
`bin/apx --python .venv/py3.11/bin/python --interface wsgi --app-dir examples djangoapp.wsgi:application`."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "djangoapp.settings")
application = get_wsgi_application()
