"""The smallest Django project settings: no database, one view module."""
SECRET_KEY = "apx-example-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "djangoapp.urls"
INSTALLED_APPS = []
MIDDLEWARE = []
DATABASES = {}
USE_TZ = True
