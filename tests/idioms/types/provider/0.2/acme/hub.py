class Repo:
    def push(self):
        return None


class Other:
    def create(self, *args, **kwargs):
        return Repo()


class Api:
    def create(self, name):
        return Repo()

    def make(self, name):
        return self.create(name)


api = Api()
create = api.create
client = Api()


def make_repo(name):
    return api.make(name)


def reset():
    global client
    client = Other()
