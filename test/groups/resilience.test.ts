import { runGroup } from '../helpers/group';

runGroup(__filename);
